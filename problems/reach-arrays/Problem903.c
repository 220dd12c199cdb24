// Arrays and a pointer into one. Hand-worked answers:
//   four cells, all 0; a cursor pos. A: cell[pos]++ while below 2 (V),
//   else invalid. B: pos = (pos+1) % 4 (W). C: pos = 0 (X), via the pointer.
//   error_0: cell[0]==2 && cell[3]==2 -> reachable: A A B B B A A.
//   error_1: cell[1]==3               -> cells stop at 2: unreachable.
//   error_2: pos==2 && p[pos]==2 && cell[0]==0 -> reachable: B B A A.
//   error_3: pos > 3                  -> pos is always taken % 4: unreachable.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int cell[4] = {0,0,0,0};
	int* p = cell;
	int pos = 0;

	void errorCheck() {
	    if((cell[0] == 2 && cell[3] == 2)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((cell[1] == 3)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((pos == 2 && p[pos] == 2) && cell[0] == 0){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	    if((pos > 3)){
	    cf = 0;
	    __VERIFIER_error(3);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && cell[pos] < 2) {
    	cf = 0;
    	cell[pos] = cell[pos] + 1;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 2))) {
    	cf = 0;
    	pos = (pos + 1) % 4;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 3))) {
    	cf = 0;
    	pos = p[0] - p[0];
    	printf("%d\n", 24); fflush(stdout);
    }
    errorCheck();

    if( cf==1 )
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
