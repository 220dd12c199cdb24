#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

	extern void __VERIFIER_error(int);

	// inputs: A B C
	int inputs[] = {1,2,3};

	void calculate_output(int);

	int cf = 1;
	int a = 0;

	void errorCheck() {
	    if (a == 2) {
	        cf = 0;
	        __VERIFIER_error(1);
	    }
	}

	void calculate_output(int input) {
	    cf = 1;
	    errorCheck();
	    if (a == 0 && input == 1 && cf == 1) {
	        cf = 0;
	        printf("%d\n", 24); fflush(stdout);
	    }
	    if (a == 0 && input == 2 && cf == 1) {
	        cf = 0;
	        a = 1;
	        printf("%d\n", 25); fflush(stdout);
	    }
	    if (a == 1 && input == 1 && cf == 1) {
	        cf = 0;
	        a = 2;
	        printf("%d\n", 26); fflush(stdout);
	    }
	    if (cf == 1)
	        fprintf(stderr, "Invalid input: %d\n", input);
	}

int main()
{
    while(1)
    {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3))
          return -2;
        calculate_output(input);
    }
}
